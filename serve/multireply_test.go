package serve

import (
	"encoding/hex"
	"reflect"
	"testing"

	"github.com/zksim/zksim/client"
	"github.com/zksim/zksim/jute"
	"github.com/zksim/zksim/sim"
)

// A multi that failed is answered as the real server answers it: "ok" in
// the reply header and each op's code in the body (go-zk reads the body
// only under an ok header: with the multi's code in the header, the
// client lost its ops' results). The frame is the real server's, from
// jute/testdata/frames.txt (step multi-fails: create /jute/n, check
// /jute/a at 99, delete /jute/a). The two are compared as clients read
// them, header and records: the server also writes -1 in the MultiHeader
// before the rolled-back create's result, where package jute writes its
// code (0), a byte no client reads.
func TestFailedMultiAnswersAsTheServerDoes(t *testing.T) {
	real, err := hex.DecodeString("00000014000000010000000c00000000" + // xid, zxid, err 0
		"ffffffff00ffffffff00000000" + // create: rolled back, 0
		"ffffffff00ffffff99ffffff99" + // check: bad version
		"ffffffff00fffffffefffffffe" + // delete: runtime inconsistency
		"ffffffff01ffffffff") // done
	if err != nil {
		t.Fatal(err)
	}
	a := &sim.Answer{Xid: 0x14, Op: client.OpMulti, Code: int32(jute.CodeBadVersion), Zxid: 0x10000000c,
		Multi: []sim.SubAnswer{{Op: client.OpCreate}, {Op: client.OpCheck, Code: int32(jute.CodeBadVersion)},
			{Op: client.OpDelete, Code: int32(jute.CodeRuntimeInconsistency)}}}
	got := encodeAnswer(a, client.OpMulti)
	gotH, gotBody, err := jute.DecodeReply(got, client.OpMulti)
	if err != nil {
		t.Fatalf("the front end's answer %x does not decode: %v", got, err)
	}
	wantH, wantBody, err := jute.DecodeReply(real, client.OpMulti)
	if err != nil {
		t.Fatal(err)
	}
	if gotH != wantH || !reflect.DeepEqual(gotBody, wantBody) {
		t.Errorf("a failed multi's answer:\n got %+v %+v\nwant %+v %+v", gotH, gotBody, wantH, wantBody)
	}
}
