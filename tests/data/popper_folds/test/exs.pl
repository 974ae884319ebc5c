pos(faculty(dan)).
neg(faculty(eve)).
