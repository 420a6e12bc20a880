// Self-checking testbench for fifo8x4: a shift-queue model (entry 0 = oldest) checked every cycle.
`timescale 1ns/1ps
module tb_fifo8x4;
    reg        clk, rst, wr_en, rd_en;
    reg  [7:0] wr_data;
    wire [7:0] rd_data;
    wire       full, empty;
    wire [2:0] count;
    reg  [7:0] q0, q1, q2, q3;   // model queue, q0 oldest
    reg  [7:0] m_rd;
    integer    m_cnt;
    reg        acc_w, acc_r;
    integer errors, n, seed, r, phase;

    fifo8x4 dut (.clk(clk), .rst(rst), .wr_en(wr_en), .wr_data(wr_data), .rd_en(rd_en),
                 .rd_data(rd_data), .full(full), .empty(empty), .count(count));

    initial clk = 0;
    always #5 clk = ~clk;

    always @(posedge clk) begin
        if (rst) begin
            m_cnt = 0; m_rd = 8'd0;
        end else begin
            acc_w = wr_en && m_cnt < 4;
            acc_r = rd_en && m_cnt > 0;
            if (acc_r) begin
                m_rd = q0;
                q0 = q1; q1 = q2; q2 = q3;
                m_cnt = m_cnt - 1;
            end
            if (acc_w) begin
                case (m_cnt)
                    0: q0 = wr_data;
                    1: q1 = wr_data;
                    2: q2 = wr_data;
                    default: q3 = wr_data;
                endcase
                m_cnt = m_cnt + 1;
            end
        end
    end

    task step(input r_i, input w_i, input [7:0] d_i, input rd_i);
        begin
            @(negedge clk);
            rst = r_i; wr_en = w_i; wr_data = d_i; rd_en = rd_i;
            #1;
            if (rd_data !== m_rd || count !== m_cnt[2:0] || full !== (m_cnt == 4) || empty !== (m_cnt == 0)) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH t=%0t rst=%b wr_en=%b wr_data=%h rd_en=%b: got rd_data=%h count=%0d full=%b empty=%b, expected rd_data=%h count=%0d full=%b empty=%b",
                             $time, rst, wr_en, wr_data, rd_en, rd_data, count, full, empty, m_rd, m_cnt, m_cnt == 4, m_cnt == 0);
            end
        end
    endtask

    initial begin
        errors = 0; seed = 84;
        rst = 1; wr_en = 0; rd_en = 0; wr_data = 0;
        // directed: fill past full, write+read when full, drain past empty, write+read when empty
        for (n = 0; n < 6; n = n + 1) step(0, 1, 8'h10 + n, 0);
        step(0, 1, 8'hAA, 1);
        for (n = 0; n < 6; n = n + 1) step(0, 0, 8'h00, 1);
        step(0, 1, 8'h55, 1); step(0, 1, 8'h66, 1); step(0, 0, 8'h00, 1); step(0, 0, 8'h00, 0);
        step(0, 1, 8'h77, 0); step(1, 1, 8'h88, 1); step(0, 0, 8'h00, 1);
        // random in phases: write-heavy, read-heavy, balanced; reset 1/64
        for (n = 0; n < 3000; n = n + 1) begin
            r = $random(seed);
            phase = (n / 100) % 3;
            step(r[5:0] == 0,
                 phase == 0 ? r[9:8] != 0 : (phase == 1 ? r[9:8] == 0 : r[8]),
                 $random(seed),
                 phase == 1 ? r[11:10] != 0 : (phase == 0 ? r[11:10] == 0 : r[10]));
        end
        step(0, 0, 8'h00, 0);
        if (errors == 0) $display("===========Your Design Passed===========");
        else $display("===========Test completed with %0d failures===========", errors);
        $finish;
    end
endmodule
