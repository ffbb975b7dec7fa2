"""Analyses over one or several datasets, each the engine of a command and of a page's
view-model: compare, campaign, references, experts, comprehension, metatask (with the task
recipes of metatask_tasks) and spans."""
