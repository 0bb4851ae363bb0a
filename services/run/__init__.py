"""Running a batch: reading, evaluating in one process or a pool of workers, writing results in order."""
