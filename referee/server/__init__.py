"""The referee: match sessions, the gRPC service and the local match runner."""
