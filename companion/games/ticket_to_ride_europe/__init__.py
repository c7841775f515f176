"""Ticket to Ride: Europe (Alan R. Moon, Days of Wonder). Rules: seed 001 (cs, then sk)."""
