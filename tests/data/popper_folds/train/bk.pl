student(bob).
courseta(c1,bob).
