"""The curator's side of a campaign: setup, check items and worked examples, the dashboard, exports."""
