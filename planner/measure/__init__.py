"""Measuring a plan: metrics, annual cost and expected slowdown."""
