head_pred(faculty,1).
body_pred(student,1).
body_pred(courseta,2).
type(faculty,(person,)).
type(student,(person,)).
type(courseta,(course,person)).
direction(courseta,(out,in)).
