"""Scraping the web: one page, a site's map, a crawl."""
