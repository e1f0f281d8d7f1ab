package main

// The program runs and prints what its comments promise.
func Example() {
	main()
	// Output:
	// schema sent to the model:
	// {"type":"function","function":{"name":"shout","description":"Shout a text.","parameters":{"additionalProperties":false,"properties":{"text":{"description":"what to shout","type":"string"},"times":{"description":"how many times (default 1)","type":"integer"}},"required":["text"],"type":"object"}}}
	//
	// first call: asking (Permission required for shout)
	// second call: success: HELLO! HELLO!
	// bad input: error: Input validation failed for tool 'shout': field "text" must be a string, not an integer (1). Fix the arguments to match the tool's input schema.
}
