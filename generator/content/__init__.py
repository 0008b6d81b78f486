"""Reading content/: the site configuration, stories, manifests and pages, as models and findings."""
