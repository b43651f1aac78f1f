"""``ohtui FILE.zip``: a conversation's trajectory zip (``ohtui download``, ``T`` on the Files
screen, the OpenHands GUI's download) opened read-only like a local conversation folder.

The zip is unpacked into a private temporary folder (mode 700, its files 600), which is
handed to the local-folder mode as any folder would be, and removed when the app ends. A
zip is untrusted input, so nothing in it decides where a byte goes or how many there are:

- a name that is absolute (``/etc/x``, ``C:…``), climbs out (``..``), uses ``\\`` or holds a
  control character is refused, and so is a link or a device: every file is created
  anew (``O_EXCL | O_NOFOLLOW``) under the temporary folder, never through anything;
- the sizes the zip declares are added up before a byte is written, and the bytes really
  unpacked are counted as they come (a zip can lie about its sizes): past
  :data:`MAX_UNPACKED` bytes or :data:`MAX_ENTRIES` entries it is refused as what it
  would be, a zip bomb;
- whatever goes wrong, the temporary folder is removed and the reason said in words.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from tui.text import clean

#: Bytes a zip may unpack to (its conversations' events and state).
MAX_UNPACKED = 1024 * 1024 * 1024
#: Entries (files and folders) a zip may hold.
MAX_ENTRIES = 200_000
CHUNK = 1024 * 1024
_DRIVE = re.compile(r"^[A-Za-z]:")


class ZipRefused(Exception):
    """The zip cannot be opened safely; the message says why, in words."""


def looks_like_zip(text: str) -> bool:
    """A regular file named ``*.zip``, or one that starts like a zip."""
    path = Path(text)
    if not path.is_file():
        return False
    return text.lower().endswith(".zip") or zipfile.is_zipfile(path)


def _parts(info: zipfile.ZipInfo) -> list[str]:
    """The path of an entry as folder names under the temporary folder; ZipRefused for a
    name or a kind of entry that has no business in a trajectory."""
    name = info.filename
    shown = clean(name)[:120]
    if not name or clean(name) != name:
        raise ZipRefused(f"it holds an entry whose name is not printable ({shown!r})")
    if "\\" in name:
        raise ZipRefused(f"it holds a name with a backslash ({shown})")
    if name.startswith("/") or _DRIVE.match(name):
        raise ZipRefused(f"it holds an absolute name ({shown})")
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise ZipRefused(f"it holds a name that leaves its folder ({shown})")
    kind = stat.S_IFMT(info.external_attr >> 16)  # 0: no Unix file type recorded
    if kind == stat.S_IFLNK:
        raise ZipRefused(f"it holds a link ({shown})")
    if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
        raise ZipRefused(f"it holds an entry that is neither a file nor a folder ({shown})")
    if info.flag_bits & 0x1:
        raise ZipRefused(f"it holds an encrypted entry ({shown})")
    return parts


def _checked(infos: list[zipfile.ZipInfo]) -> list[tuple[zipfile.ZipInfo, list[str]]]:
    if len(infos) > MAX_ENTRIES:
        raise ZipRefused(f"it holds {len(infos):,} entries (at most {MAX_ENTRIES:,} are opened)")
    declared = sum(info.file_size for info in infos)
    if declared > MAX_UNPACKED:
        raise ZipRefused(_bomb(declared))
    return [(info, _parts(info)) for info in infos]


def _bomb(size: int | None) -> str:
    told = f"to {size / 1024**3:.1f} GB, " if size else ""
    return f"it would unpack {told}more than the {MAX_UNPACKED // 1024**3} GB allowed (a zip bomb?)"


def unpack(zip_path: str | os.PathLike[str], into: Path) -> int:
    """Unpack the zip at ``zip_path`` into the empty folder ``into``; the bytes written."""
    written = 0
    with zipfile.ZipFile(zip_path) as archive:
        for info, parts in _checked(archive.infolist()):
            if not parts:
                continue
            target = into.joinpath(*parts)
            if info.is_dir():
                target.mkdir(mode=0o700, parents=True, exist_ok=True)
                continue
            target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
            try:
                fd = os.open(target, flags, 0o600)
            except FileExistsError:
                raise ZipRefused(f"it holds {clean(info.filename)[:120]} twice") from None
            with os.fdopen(fd, "wb") as out, archive.open(info) as source:
                while chunk := source.read(CHUNK):
                    written += len(chunk)
                    if written > MAX_UNPACKED:
                        raise ZipRefused(_bomb(None))
                    out.write(chunk)
    return written


@dataclass
class OpenedZip:
    """A zip unpacked into ``folder`` (a private temporary folder): :meth:`remove` when done."""

    name: str
    folder: Path

    def remove(self) -> None:
        shutil.rmtree(self.folder.parent, ignore_errors=True)


def open_zip(zip_path: str) -> OpenedZip:
    """The zip unpacked into a new private folder; ZipRefused (the folder removed) when it
    cannot be opened safely or holds no conversation."""
    from tui.server.folder_scan import conversation_folders

    shown = clean(zip_path)
    temp = Path(tempfile.mkdtemp(prefix="ohtui-zip-"))  # mode 700
    folder = temp / (clean(Path(zip_path).stem)[:60].replace("/", "_") or "trajectory")
    opened = OpenedZip(zip_path, folder)
    try:
        folder.mkdir(mode=0o700)
        unpack(zip_path, folder)
        if not conversation_folders(folder):
            raise ZipRefused(
                "it holds no OpenHands conversation (expected <id>/events/event-NNNNN-<id>.json)"
            )
    except ZipRefused as exc:
        opened.remove()
        raise ZipRefused(f"{shown} cannot be opened: {exc}") from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError) as exc:
        opened.remove()
        raise ZipRefused(f"{shown} is not a zip file ohtui can read ({exc})") from None
    except OSError as exc:
        opened.remove()
        raise ZipRefused(f"{shown} cannot be unpacked: {exc.strerror or exc}") from None
    except BaseException:
        opened.remove()
        raise
    return opened


__all__ = ["MAX_ENTRIES", "MAX_UNPACKED", "OpenedZip", "ZipRefused", "looks_like_zip", "open_zip"]
