pos(faculty(ann)).
neg(faculty(bob)).
