"""Built-in backends: the engines that answer coverage and saturation questions."""
