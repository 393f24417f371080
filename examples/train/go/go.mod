module opgen.dev/train

go 1.18

require opgen.dev/tf v0.0.0

// The package `opgen generate --lang go` writes (here: the checked-in one for ops.pbtxt).
replace opgen.dev/tf => ../../../generated/go
