"""The service on a Ray cluster (`rulesqa serve --ray ADDRESS`): the same FastAPI app (create_app) served
by many Ray Serve replicas, optionally over a shelf in shards. Needs the `cluster` extra; ray is only
imported by these modules."""
