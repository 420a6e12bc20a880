// A sequence detector written the usual way: one state per prefix of 2,0,3,1 seen, binary coded, and the
// output decoded from the state.
module sym_detect (
    input        clk,
    input        rst,
    input  [1:0] key,
    output       hit
);
    localparam IDLE = 3'd0, GOT2 = 3'd1, GOT20 = 3'd2, GOT203 = 3'd3, DONE = 3'd4;
    reg [2:0] state, next;

    always @(*) begin
        case (state)
            IDLE:    next = (key == 2'd2) ? GOT2 : IDLE;
            GOT2:    next = (key == 2'd0) ? GOT20 : (key == 2'd2) ? GOT2 : IDLE;
            GOT20:   next = (key == 2'd3) ? GOT203 : (key == 2'd2) ? GOT2 : IDLE;
            GOT203:  next = (key == 2'd1) ? DONE : (key == 2'd2) ? GOT2 : IDLE;
            DONE:    next = (key == 2'd2) ? GOT2 : IDLE;
            default: next = IDLE;
        endcase
    end

    always @(posedge clk)
        if (rst) state <= IDLE;
        else state <= next;

    assign hit = (state == DONE);
endmodule
