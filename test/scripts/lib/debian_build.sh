# debian_build DIR: builds the Debian package with dpkg-buildpackage -us -uc -b
# (pg_buildext, debian/) in a scratch copy of the tree under DIR, the way a
# packager builds it from a clean tree; the package lands in DIR and the
# build's output in DIR/build.log. The job count is DEB_JOBS (2 by default):
# scripts/test.sh builds it with one job, niced, while the other script
# tests run, and test/scripts/debian_package.sh then checks what it made.
# Needs SKETCH_ROOT and a git checkout (the copy holds the files git tracks).
debian_build() {
    local dir=$1 version src
    version=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$SKETCH_ROOT/sketchshare.control")
    src=$dir/sketchshare-$version
    mkdir -p "$src"
    (cd "$SKETCH_ROOT" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp -p --parents -t "$src")
    if [ ! -f "$src/debian/rules" ] || [ -e "$src/sketchshare.so" ]; then
        echo "the scratch copy is not a clean tree" >"$dir/build.log"
        return 1
    fi
    (cd "$src" && DEB_BUILD_OPTIONS="nocheck parallel=${DEB_JOBS:-2}" dpkg-buildpackage -us -uc -b >"$dir/build.log" 2>&1)
}
