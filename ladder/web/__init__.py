"""The ladder's web pages: leaderboards, bot pages and the replay viewer (HTML, CSS and vanilla JS served by the app)."""

from ladder.web.routes import STATIC, game_list, mount_pages, render, replay_app

__all__ = ["STATIC", "game_list", "mount_pages", "render", "replay_app"]
