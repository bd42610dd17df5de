"""Stand-in backends, one file each, each serving one request type (``asking.requests``): what a method asks is
all a backend needs to serve (issue #37)."""
