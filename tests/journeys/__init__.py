"""The two seed days (Nantong 2014, Anhui 2021) played in a browser from an empty database."""
