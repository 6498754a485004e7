"""Output: report tables, recommendations and the plan workbook."""
