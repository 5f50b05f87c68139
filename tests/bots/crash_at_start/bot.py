import sys

sys.exit("crashing on purpose")
