head_pred(f,1).
