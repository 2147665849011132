# Reads node --test's TAP output; prints each failed test (not ok) with its YAML block (error,
# location, stack), suites that only failed for their subtests left out, so a CI log's tail names
# what failed.
/^ *not ok / {
  grab = 1; indent = match($0, /[^ ]/); block = $0; next
}
grab {
  block = block "\n" $0
  if ($0 ~ /^ *\.\.\.$/ && match($0, /[^ ]/) >= indent) {
    grab = 0
    if (block !~ /failureType: 'subtestsFailed'/) { print block; print ""; if (++shown >= 12) exit }
  }
}
