"""Renderers that need an imaging library (Pillow); the rules core never imports them."""
