head_pred(f,1).
body_pred(p,1
