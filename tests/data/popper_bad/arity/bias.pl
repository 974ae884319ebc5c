head_pred(f,1).
body_pred(p,2).
type(p,(a,)).
