max_body(2).
head_pred(f,1).
body_pred(p,1).
type(f,(a,)).
type(p,(a,)).
