student(bob).
student(eve).
