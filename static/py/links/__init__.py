"""Share links: the link format (``share``, pure), QR codes (``qr``), and the
share dialog (``sharedialog``).
"""
