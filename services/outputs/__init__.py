"""Writing outputs safely: atomically, and never over one of the command's own inputs."""
