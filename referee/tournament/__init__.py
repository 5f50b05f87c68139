"""Local tournaments: schedules (round-robin, gauntlet, swiss), TrueSkill standings, SPRT and the async runner."""
