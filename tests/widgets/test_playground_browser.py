"""The playground's order strip in a real JupyterLab on a 2x screen: shown at half its pixels, not stretched.

What the Python tests cannot see: how the page lays the picture out.  An
image of auto width in the widget's flex column was widened to the column
and kept its height; an 80 dpi picture shown at its pixel size was blurred
by every 2x screen.
"""
import pytest
from browser_harness import chromium, open_notebook, run_cell, write_notebook

pytestmark = pytest.mark.browser

CELL = """from rlviz.widgets import RoundRobinPlayground
pg = RoundRobinPlayground(weights=[2, 1, "*"])
pg"""


@pytest.fixture
def lab(shared_lab):
    """The session's JupyterLab with ``playground.ipynb`` in a folder of its own; yields (url, notebook)."""
    with shared_lab.folder() as root:
        write_notebook(root / "playground.ipynb", [CELL])
        yield shared_lab.url, f"{root.name}/playground.ipynb"


def test_strip_shows_two_image_pixels_per_css_pixel_unstretched(lab, tmp_path):
    from playwright.sync_api import expect

    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1300, "height": 1100}, device_scale_factor=2)
        page.set_default_timeout(60_000)
        open_notebook(page, *lab)
        run_cell(page, 0)
        picture = page.locator(".jp-OutputArea-output img.widget-image").first
        expect(picture).to_be_visible(timeout=180_000)
        page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=picture.element_handle())
        natural_w, natural_h, shown_w, shown_h = picture.evaluate(
            "img => [img.naturalWidth, img.naturalHeight, img.clientWidth, img.clientHeight]")
        page.locator(".jp-OutputArea-output").first.screenshot(path=str(tmp_path / "playground.png"))
    assert (natural_w, natural_h) == (2 * shown_w, 2 * shown_h), (
        f"the {natural_w}x{natural_h} PNG is shown at {shown_w}x{shown_h} CSS px, not half its pixels; "
        f"screenshot: {tmp_path / 'playground.png'}")
