// deploytools: the judgements of two deploy tools, computed by their own code, for the tests of the
// DaemonSet's Stalled condition (deploytools-build.sh builds it; DeployToolsIT and
// DeployToolsRealClusterIT run it).
//
//	deploytools kstatus < object.json          kstatus' status of one object (as Helm 4's --wait,
//	                                           Flux, kpt and cli-utils compute it)
//	deploytools lua health.lua < object.json   an Argo CD resource health check run the way Argo CD
//	                                           runs it: gopher-lua, the object as the global obj
//
// Both print one JSON object: {"status": "...", "message": "..."}.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	lua "github.com/yuin/gopher-lua"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

type verdict struct {
	Status  string `json:"status"`
	Message string `json:"message"`
}

func main() {
	if len(os.Args) < 2 {
		fail("usage: deploytools kstatus | lua SCRIPT (the object as JSON on stdin)")
	}
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail("reading stdin: %v", err)
	}
	// as the API machinery decodes objects (whole numbers as int64), as both tools get them
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(in); err != nil {
		fail("the object on stdin is no Kubernetes object: %v", err)
	}
	obj := u.Object
	var v verdict
	switch os.Args[1] {
	case "kstatus":
		r, err := status.Compute(u)
		if err != nil {
			fail("kstatus: %v", err)
		}
		v = verdict{Status: r.Status.String(), Message: r.Message}
	case "lua":
		if len(os.Args) < 3 {
			fail("usage: deploytools lua SCRIPT")
		}
		v = health(os.Args[2], obj)
	default:
		fail("unknown command %q", os.Args[1])
	}
	out, _ := json.Marshal(v)
	fmt.Println(string(out))
}

// health runs a health script as Argo CD does: only the safe standard libraries, the object as
// the global obj, the script's returned table ({status, message}) as the verdict.
func health(script string, obj map[string]interface{}) verdict {
	l := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer l.Close()
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.LoadLibName, lua.OpenPackage},
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
		{lua.CoroutineLibName, lua.OpenCoroutine},
	} {
		l.Push(l.NewFunction(lib.open))
		l.Push(lua.LString(lib.name))
		l.Call(1, 0)
	}
	l.SetGlobal("obj", toLua(l, obj))
	if err := l.DoFile(script); err != nil {
		fail("%s: %v", script, err)
	}
	table, ok := l.Get(-1).(*lua.LTable)
	if !ok {
		fail("%s returned %s, not a table", script, l.Get(-1).Type())
	}
	return verdict{
		Status:  lua.LVAsString(table.RawGetString("status")),
		Message: lua.LVAsString(table.RawGetString("message")),
	}
}

// toLua turns decoded JSON into Lua values: objects and arrays into tables (arrays from index 1),
// numbers, strings, booleans; null into nil.
func toLua(l *lua.LState, v interface{}) lua.LValue {
	switch x := v.(type) {
	case map[string]interface{}:
		t := l.NewTable()
		for k, e := range x {
			t.RawSetString(k, toLua(l, e))
		}
		return t
	case []interface{}:
		t := l.NewTable()
		for i, e := range x {
			t.RawSetInt(i+1, toLua(l, e))
		}
		return t
	case int64:
		return lua.LNumber(x)
	case float64:
		return lua.LNumber(x)
	case string:
		return lua.LString(x)
	case bool:
		return lua.LBool(x)
	default:
		return lua.LNil
	}
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "deploytools: "+format+"\n", args...)
	os.Exit(2)
}
