"""Generated protocol stubs; see scripts/gen_proto.py."""
