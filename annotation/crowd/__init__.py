"""The crowd worker's side of a campaign: entry and consent, the rating loop, what comes next (journey), the ends."""
