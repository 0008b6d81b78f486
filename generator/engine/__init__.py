"""The build engine: read and check a site, then make again exactly the outputs whose fingerprint (of all each
is made from) changed, and those the output store no longer holds."""
