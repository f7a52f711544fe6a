"""Korean analysers, one file each; ``text.registry`` names them."""
