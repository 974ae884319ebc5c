head_pred(f,1).
body_pred(p,2).
direction(p,(in,sideways)).
