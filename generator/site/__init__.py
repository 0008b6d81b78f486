"""The site around the stories: list pages, feeds, manifest pages, sitemaps and the search index."""
