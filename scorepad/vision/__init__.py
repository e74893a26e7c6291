"""Photo recognition of game sheets (issue 7). Entry point:
``scorepad.vision.recognize.recognize(image_bytes, game, layout)``; errors are
``scorepad.vision.decode.PhotoError``. Needs the ``vision`` extra (OpenCV headless, Pillow;
scikit-learn only to train). See ``docs/vision.md``."""
