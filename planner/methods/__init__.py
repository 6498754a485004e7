"""Sharing methods: one module per method, each implementing the method contract."""
