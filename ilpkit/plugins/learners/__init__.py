"""Built-in learners (published methods and their baselines)."""
