import llwfix


def test_answer():
    assert llwfix.answer() == 42
