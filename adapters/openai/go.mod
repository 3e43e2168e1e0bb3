module github.com/shellcap/shellcap/adapters/openai

go 1.26.0

replace github.com/shellcap/shellcap => ../..

require (
	github.com/openai/openai-go/v3 v3.100.0
	github.com/shellcap/shellcap v0.0.0-00010101000000-000000000000
)

require (
	github.com/coder/websocket v1.8.15 // indirect
	github.com/tidwall/gjson v1.20.0 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.1 // indirect
	github.com/tidwall/sjson v1.2.5 // indirect
	go.uber.org/goleak v1.3.0 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/sys v0.50.0 // indirect
	mvdan.cc/sh/v3 v3.14.1 // indirect
)
