"""The Textual application (screens and widgets). Imports are lazy to keep start-up fast."""
