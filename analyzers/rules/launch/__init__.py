"""The launch: work-group shape and size, dataset size, occupancy, registers, kernel length."""
