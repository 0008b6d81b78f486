"""From models to text: the story and manifest views, the templates and the escaping of each output format."""
