#!/bin/sh
# Packs what `make install-files` staged into a Debian package and a tarball (make dist).
# Usage: packaging/dist.sh STAGE OUTPUT
#   STAGE/debian/threadfold  the files under /usr (PREFIX=/usr, zsh's Debian folder)
#   STAGE/tar                the same files under a bare prefix (bin/, share/)
# Writes OUTPUT/threadfold_<version>_<arch>.deb and OUTPUT/threadfold-<version>-linux-<machine>.tar.gz.
# The package's Depends are what dpkg-shlibdeps finds the binary linked against; a binary that
# links anything of the Swift toolchain is refused, as it would not run without Swift.
set -eu

stage=$(cd "$1" && pwd)
mkdir -p "$2"
output=$(cd "$2" && pwd)
deb="$stage/debian/threadfold"
tarroot="$stage/tar"

# Debian packages ship stripped binaries; the debug build's symbols are most of its size.
strip --strip-unneeded "$deb/usr/bin/threadfold" "$tarroot/bin/threadfold"

toolchain=$(readelf -d "$deb/usr/bin/threadfold" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' |
  grep -E '^lib(swift|Foundation|_Foundation|dispatch|BlocksRuntime|XCTest|Testing)' || true)
if [ -n "$toolchain" ]; then
  echo "dist: the binary links the Swift toolchain's libraries, so it needs Swift to run:" $toolchain >&2
  echo "dist: build it with --static-swift-stdlib" >&2
  exit 1
fi

version=$("$deb/usr/bin/threadfold" --version | sed -n '1s/^threadfold //p')
[ -n "$version" ] || { echo "dist: 'threadfold --version' named no version" >&2; exit 1; }
arch=$(dpkg --print-architecture)
machine=$(uname -m)

# dpkg-shlibdeps reads debian/control, and expects the package's files in debian/<package>/
# with its DEBIAN folder there.
printf 'Source: threadfold\n\nPackage: threadfold\nArchitecture: any\n' > "$stage/debian/control"
mkdir -p "$deb/DEBIAN"
depends=$(cd "$stage" && dpkg-shlibdeps -O debian/threadfold/usr/bin/threadfold | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "dist: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

cat > "$deb/DEBIAN/control" <<CONTROL
Package: threadfold
Version: $version
Architecture: $arch
Maintainer: ${DEBFULLNAME:-Threadfold developers} <${DEBEMAIL:-threadfold@localhost}>
Installed-Size: $(du -sk "$deb/usr" | cut -f1)
Depends: $depends
Section: web
Priority: optional
Description: turn forum comment JSON into static HTML pages whose replies fold
 Threadfold reads threads of comments as JSON (its own format, or exports
 from Reddit, Hacker News, Discourse and other forums) and writes static HTML
 pages in which every reply section folds, or a whole archive site with an
 index, feeds and search. Built with Swift's standard library linked in, so
 Swift is not needed to run it.
CONTROL
# The copyright file Debian policy asks for: the Swift runtime and Foundation are linked in, and
# their licence travels with them.
mkdir -p "$deb/usr/share/doc/threadfold" "$tarroot/share/doc/threadfold"
cat > "$deb/usr/share/doc/threadfold/copyright" <<'COPYRIGHT'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: threadfold
Comment: Threadfold's own sources carry the terms of the repository they come from. The binary
 links these statically; their terms follow.

Files: usr/bin/threadfold (the Swift standard library and runtime, Foundation, Dispatch)
Copyright: Apple Inc. and the Swift project authors
License: Apache-2.0 WITH Swift-exception
 Licensed under the Apache License, Version 2.0 with the Runtime Library Exception; on Debian
 systems the Apache License 2.0 is in /usr/share/common-licenses/Apache-2.0.
 .
 Runtime Library Exception: as an exception, if you use this Software to compile your source
 code and portions of this Software are embedded into the binary product as a result, you may
 redistribute such product without providing attribution as would otherwise be required by
 Sections 4(a), 4(b) and 4(d) of the License.
COPYRIGHT
chmod 644 "$deb/usr/share/doc/threadfold/copyright"
cp "$deb/usr/share/doc/threadfold/copyright" "$tarroot/share/doc/threadfold/copyright"
package="$output/threadfold_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$deb" "$package" >/dev/null
rm -rf "$deb/DEBIAN"

# The tarball: the same files under threadfold-<version>/, and how to install them.
name="threadfold-$version"
rm -rf "$stage/$name"
cp -R "$tarroot" "$stage/$name"
packages=$(printf '%s\n' "$depends" | sed 's/ ([^)]*)//g; s/,//g')
cat > "$stage/$name/INSTALL" <<INSTALL
Threadfold $version for Linux $machine

The binary carries Swift's standard library and Foundation: Swift is not needed to run it.
It needs these Debian 12 packages (what dpkg-shlibdeps found it linked against):

  sudo apt-get install $packages

Then copy the files under a prefix, such as /usr/local:

  sudo cp -R bin share /usr/local/

  bin/threadfold                                    the program
  share/man/man1/threadfold.1.gz                    man threadfold
  share/bash-completion/completions/threadfold      bash completion
  share/zsh/site-functions/_threadfold              zsh completion
  share/fish/vendor_completions.d/threadfold.fish   fish completion
  share/threadfold/*.schema.json                    JSON Schemas of Threadfold's files
  share/doc/threadfold/copyright                    the terms of what the binary links in

On Debian, threadfold_${version}_${arch}.deb installs the same files under /usr:

  sudo apt-get install ./threadfold_${version}_${arch}.deb
INSTALL
chmod 644 "$stage/$name/INSTALL"
tarball="$output/$name-linux-$machine.tar.gz"
# Same files, same bytes: names sorted, owners and times fixed.
tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@${SOURCE_DATE_EPOCH:-0}" -cf "$stage/$name.tar" "$name"
gzip -9n -c "$stage/$name.tar" > "$tarball"
rm -rf "$stage/$name" "$stage/$name.tar"

echo "dist: wrote $package ($(du -k "$package" | cut -f1) KiB)"
echo "dist: wrote $tarball ($(du -k "$tarball" | cut -f1) KiB)"
echo "dist: Depends: $depends"
