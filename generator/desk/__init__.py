"""The agent desk: the newsroom's checks, manifests and drafts as Model Context Protocol tools for writing agents."""
