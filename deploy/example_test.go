package deploy_test

import (
	"fmt"
	"strings"

	"github.com/pdpp/pdpp-mcp/deploy"
)

// Decode refuses what a lax YAML decoder would silently drop.
func ExampleDecode() {
	manifest := `apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, tragetPort: http}]
`
	_, err := deploy.Decode("service.yaml", strings.NewReader(manifest))
	fmt.Println(err)
	// Output: service.yaml#0: strict decoding error: unknown field "spec.ports[0].tragetPort"
}
