"""Reading a PDF by its layout: page → glyphs with boxes (``glyphs``) → rows and segments
(``lines``) → side tabs, header and footer set apart (``edges``) → columns in reading order
(``columns``) → page furniture and broken words (``furniture``) and private-use marks
(``marks``); a page whose text layer is missing or broken (``quality``) is read by OCR
(``ocr_pages``, with tesseract through ``ocr``). ``reader.read_pdf`` runs the steps."""
