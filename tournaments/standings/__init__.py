"""The units' standings across every event of a tournament (团体总分): the pure rules, the read that feeds them, their page and JSON."""
