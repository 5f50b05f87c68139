"""The engine core every game is written against."""
