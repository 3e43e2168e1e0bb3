module github.com/shellcap/shellcap/temporal

go 1.26.5

replace github.com/shellcap/shellcap => ..

require github.com/shellcap/shellcap v0.0.0-00010101000000-000000000000

require (
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/sys v0.50.0 // indirect
	mvdan.cc/sh/v3 v3.14.1 // indirect
)
