"""The card workflow of the window beside the canvas: whose ground truth is shown, ground truth from a run, cards to transcribe."""
