"""Time of day: demand curves and harvesting idle VDI GPUs at night."""
