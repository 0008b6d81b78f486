"""The build engine: read and check a site, then make exactly the outputs whose recorded inputs changed."""
